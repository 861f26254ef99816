-- expect: 2 unknown fault_engine 'nosuch'
lb.run{ioengine="fault", fault_engine="nosuch", size="1m"}
