-- expect: 2 bad value '0' for 'bs'
lb.run{ioengine="null", size="1m", bs=0}
