-- expect: 2 bad value '-4k' for 'size': must not be negative
lb.run{ioengine="null", size="-4k"}
