-- expect: 2 bad value '2' for 'fault_eio'
lb.run{ioengine="fault", size="1m", fault_eio=2}
