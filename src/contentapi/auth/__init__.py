"""Who is calling and what they may do: API tokens (users and roles come later)."""
