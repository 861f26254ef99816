-- expect: 2 bad value '-1' for 'numjobs'
lb.run{ioengine="null", size="1m", numjobs=-1}
