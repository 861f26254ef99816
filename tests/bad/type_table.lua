-- expect: 2 option 'size' must be a string, number or boolean, not a table
lb.run{ioengine="null", size={}}
