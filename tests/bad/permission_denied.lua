-- expect: 1 Permission denied
-- as: nobody
-- the working directory belongs to root: nobody may not create files there
lb.run{ioengine="psync", directory=".", size="64k", rw="write"}
