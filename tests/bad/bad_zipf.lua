-- expect: 2 bad value 'zipf:-1' for 'random_distribution'
lb.run{ioengine="null", size="1m", rw="randread", random_distribution="zipf:-1"}
