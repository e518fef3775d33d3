--[[
  The final statuses: a row in one of them has its answer and is never claimed, settled
  or sent again.

  Defines: FINAL (status → true)
]]
local FINAL = { sent = true, failed = true, rejected = true, skipped = true, unknown = true, cancelled = true, expired = true }
