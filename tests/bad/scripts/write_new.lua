-- writes new.dat: refused under --readonly before anything is opened
lb.run{ioengine="psync", filename="new.dat", size="64k", rw="write"}
