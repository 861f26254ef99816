-- expect: 2 refusing to write to foreign.dat
lb.run{ioengine="io_uring", filename="foreign.dat", size="64k", rw="randrw"}
