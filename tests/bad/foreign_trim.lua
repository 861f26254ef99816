-- expect: 2 refusing to write to foreign.dat
lb.run{ioengine="psync", filename="foreign.dat", size="64k", rw="trim"}
