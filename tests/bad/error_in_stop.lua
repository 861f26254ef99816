-- expect: 1 boom in stop
-- a failing stop rule ends the run at once (the run would take 30 s)
lb.run{ioengine="null", null_lat="1ms", size="1m", runtime="30s", time_based=true,
       stop=function() error("boom in stop") end}
