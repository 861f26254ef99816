-- expect: 2 bad value for 'filename': it holds a NUL byte
lb.run{filename="a\0b", rw="write", size="1m"}
