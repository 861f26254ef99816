-- expect: 2 refusing to write to foreign.dat
-- one foreign file in a list refuses the whole job before anything is written
lb.run{ioengine="psync", filename="new1.dat:foreign.dat:new2.dat", size="192k", rw="write"}
