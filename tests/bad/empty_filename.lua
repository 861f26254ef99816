-- expect: 2 filename ':::' names no file
lb.run{ioengine="psync", size="1m", filename=":::"}
