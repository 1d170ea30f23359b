function event()
  local x =
end
