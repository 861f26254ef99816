-- expect: 2 bad value 'nope' for 'allow_overwrite'
lb.run{filename="foreign.dat", rw="write", size="64k", allow_overwrite="nope"}
