-- expect: 2 bad value 'readd' for 'rw'
lb.run{ioengine="null", size="1m", rw="readd"}
