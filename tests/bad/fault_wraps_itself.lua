-- expect: 2 the fault engine cannot wrap itself
lb.run{ioengine="fault", fault_engine="fault", size="1m"}
