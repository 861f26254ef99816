-- expect: 2 bad value '4k/200' for 'bssplit'
lb.run{ioengine="null", size="1m", bssplit="4k/200"}
