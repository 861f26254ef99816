-- expect: 2 refusing to write to foreign.dat: not created by luabench
lb.run{filename="foreign.dat", rw="write", size="64k", allow_overwrite="off"}
