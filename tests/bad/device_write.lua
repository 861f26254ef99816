-- expect: 2 refusing to write to /dev/zero
lb.run{ioengine="psync", filename="/dev/zero", size="1m", rw="write"}
