-- expect: 2 unknown engine 'nosuch'
lb.run{ioengine="nosuch", size="1m"}
