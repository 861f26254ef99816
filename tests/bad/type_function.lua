-- expect: 2 option 'bs' must be a string, number or boolean, not a function
lb.run{ioengine="null", size="1m", bs=print}
