-- A script without event(): it can be loaded, not run.
function prepare()
end
