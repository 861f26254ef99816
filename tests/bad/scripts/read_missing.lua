-- reads missing.dat, which does not exist: with --readonly nothing may be created
lb.run{ioengine="psync", filename="missing.dat", size="64k", rw="read"}
