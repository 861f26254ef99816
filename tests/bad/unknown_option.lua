-- expect: 2 unknown option 'blocksze' (did you mean 'blocksize'?)
lb.run{ioengine="null", size="1m", blocksze="4k"}
