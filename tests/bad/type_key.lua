-- expect: 2 spec keys must be option names, not a boolean
lb.run{ioengine="null", size="1m", [true]=1}
