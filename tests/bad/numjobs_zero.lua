-- expect: 2 bad value '0' for 'numjobs'
lb.run{ioengine="null", size="1m", numjobs=0}
