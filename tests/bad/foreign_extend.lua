-- expect: 2 refusing to write to small.dat
-- a read job larger than the file would have to extend it
lb.run{ioengine="psync", filename="small.dat", size="1m", rw="read"}
