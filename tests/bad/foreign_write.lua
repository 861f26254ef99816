-- expect: 2 refusing to write to foreign.dat: not created by luabench
lb.run{ioengine="psync", filename="foreign.dat", size="64k", rw="write"}
