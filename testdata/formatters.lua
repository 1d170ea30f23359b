-- sysbench's built-in report formatters used as hooks.
function event()
end

sysbench.hooks.report_intermediate = sysbench.report_csv
sysbench.hooks.report_cumulative = sysbench.report_json
