-- expect: 2 verify_only needs verify=
lb.run{ioengine="psync", filename="foreign.dat", rw="read", verify_only=true}
