-- expect: 2 bad value '99999999999999999999' for 'size'
lb.run{ioengine="null", size="99999999999999999999"}
