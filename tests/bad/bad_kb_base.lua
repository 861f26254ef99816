-- expect: 2 bad value '999' for 'kb_base'
lb.run{ioengine="null", size="1m", kb_base=999}
