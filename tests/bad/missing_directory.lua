-- expect: 1 cannot create nodir/job.0.0: No such file or directory
lb.run{ioengine="psync", directory="nodir", size="1m", rw="write"}
