-- expect: 2 bad value 'sha9' for 'verify'
lb.run{ioengine="null", size="1m", rw="write", verify="sha9"}
