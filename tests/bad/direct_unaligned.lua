-- expect: 2 direct=1 needs bs to be a multiple of 512
lb.run{ioengine="psync", filename="never.dat", size="1m", bs=1000, direct=1}
