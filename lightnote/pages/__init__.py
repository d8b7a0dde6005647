"""What every server-rendered page shares: item pages and the template context."""
