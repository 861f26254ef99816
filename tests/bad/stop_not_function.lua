-- expect: 2 'stop' must be a function
lb.run{ioengine="null", size="1m", stop=3}
