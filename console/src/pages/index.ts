// The console's routes: one line each (`#/<pattern>`, the page, the navigation label or null when not in the menu).
import type { PageFactory } from '../page.js'
import { fleetPage } from './fleet.js'
import { systemPage } from './system.js'
import { operationsPage } from './operations.js'
import { operationPage } from './operation.js'
import { companyPage } from './company.js'
import { usersPage } from './users.js'
import { applicationsPage } from './applications.js'
import { applicationPage } from './application.js'
import { alertsPage } from './alerts.js'

export interface Route { pattern: string, page: PageFactory, label: string | null, adminOnly?: boolean }

export const routes: Route[] = [
  { pattern: '/fleet', page: fleetPage, label: 'Fleet' },
  { pattern: '/systems/:uid', page: systemPage, label: null },
  { pattern: '/operations', page: operationsPage, label: 'Operations' },
  { pattern: '/operations/:uid', page: operationPage, label: null },
  { pattern: '/applications', page: applicationsPage, label: 'Applications' },
  { pattern: '/applications/:uid', page: applicationPage, label: null },
  { pattern: '/alerts', page: alertsPage, label: 'Alerts' },
  { pattern: '/company', page: companyPage, label: 'Company', adminOnly: true },
  { pattern: '/users', page: usersPage, label: 'Users', adminOnly: true }
]
