-- expect: 2 bad value '1us' for 'interval'
lb.run{ioengine="null", size="1m", interval="1us"}
