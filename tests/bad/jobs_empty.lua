-- expect: 2 'jobs' is empty
lb.run{ioengine="null", size="1m", jobs={}}
