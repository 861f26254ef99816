-- expect: 2 unknown option 'name\x1b[31m\x0a\xff'
lb.run{ioengine="null", size="1m", ["name\27[31m\n\255"]=1}
