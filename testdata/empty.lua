-- An event that does nothing: the engine's own overhead.
function event()
end
