-- expect: 2 readonly is set but rw=write writes
lb.run{ioengine="psync", filename="new.dat", size="1m", rw="write", readonly=true}
