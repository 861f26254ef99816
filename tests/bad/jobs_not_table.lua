-- expect: 2 jobs[1] is not a table
lb.run{ioengine="null", size="1m", jobs={3}}
