-- expect: 2 bad value 'a-b' for 'cpus_allowed'
lb.run{ioengine="null", size="1m", cpus_allowed="a-b"}
