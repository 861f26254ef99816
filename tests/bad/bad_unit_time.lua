-- expect: 2 bad value '5q' for 'runtime'
lb.run{ioengine="null", size="1m", runtime="5q"}
