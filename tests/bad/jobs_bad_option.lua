-- expect: 2 bad value 'sideways' for 'rw'
lb.run{ioengine="null", size="1m", jobs={{name="a"}, {name="b", rw="sideways"}}}
