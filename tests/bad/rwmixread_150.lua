-- expect: 2 bad value '150' for 'rwmixread'
lb.run{ioengine="null", size="1m", rw="randrw", rwmixread=150}
