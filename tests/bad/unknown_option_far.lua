-- expect: 2 unknown option 'qqqzzzxxx'
lb.run{ioengine="null", size="1m", qqqzzzxxx=1}
