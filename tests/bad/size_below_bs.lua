-- expect: 2 size (1024) is smaller than bs (4096)
lb.run{ioengine="null", size="1k", bs="4k"}
