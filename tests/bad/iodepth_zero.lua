-- expect: 2 bad value '0' for 'iodepth'
lb.run{ioengine="null", size="1m", iodepth=0}
