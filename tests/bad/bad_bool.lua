-- expect: 2 bad value 'maybe' for 'direct'
lb.run{ioengine="null", size="1m", direct="maybe"}
