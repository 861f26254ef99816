-- expect: 2 bad value '4x' for 'size'
lb.run{ioengine="null", size="4x"}
