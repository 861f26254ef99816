-- expect: 2 is not a regular file or a device
lb.run{ioengine="psync", filename=".", size="1m", rw="read"}
