-- expect: 2 bad value for 'numjobs': it holds a NUL byte
lb.run{ioengine="null", size="1m", numjobs="4k\0junk"}
