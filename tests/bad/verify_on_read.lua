-- expect: 2 writes nothing to check
lb.run{ioengine="psync", filename="foreign.dat", rw="read", verify="crc32c"}
