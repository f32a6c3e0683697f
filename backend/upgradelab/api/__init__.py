"""HTTP routers, one module per topic: request and response shapes only; the work is in the packages below."""
